# sibyl-ocl-driver
add_library(sibyl-ocl-driver INTERFACE)
target_link_libraries(sibyl-ocl-driver INTERFACE sibyl-ocl-common)
