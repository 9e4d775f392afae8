# sibyl-ocl-device
add_library(sibyl-ocl-device INTERFACE)
target_link_libraries(sibyl-ocl-device INTERFACE sibyl-ocl-common)
