# sibyl-ocl-instrument: dynamic and static LLVM instruction counts of a
# kernel (src/ocl/instrument.h), by rewriting its SPIR bitcode with the
# LLVM-14 C API.
add_library(sibyl-ocl-instrument STATIC
  ${CMAKE_CURRENT_SOURCE_DIR}/instrument.c
  ${CMAKE_CURRENT_SOURCE_DIR}/instrument_sig.c
  ${CMAKE_CURRENT_SOURCE_DIR}/instrument_rewrite.c
  ${CMAKE_CURRENT_SOURCE_DIR}/instrument_flush.c
  ${CMAKE_CURRENT_SOURCE_DIR}/counts.c
  ${CMAKE_CURRENT_SOURCE_DIR}/listing.c)
target_include_directories(sibyl-ocl-instrument PUBLIC ${LLVM_INCLUDE})
target_link_libraries(sibyl-ocl-instrument PUBLIC ${LLVM_LIB} sibyl-core)
