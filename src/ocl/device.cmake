# sibyl-ocl-device
add_library(sibyl-ocl-device INTERFACE)
