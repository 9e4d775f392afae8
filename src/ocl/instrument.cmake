# sibyl-ocl-instrument
add_library(sibyl-ocl-instrument INTERFACE)
