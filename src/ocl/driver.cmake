# sibyl-ocl-driver
add_library(sibyl-ocl-driver INTERFACE)
