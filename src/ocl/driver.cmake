# sibyl-ocl-driver: `sibyl kernel` — compile (clang-14 -> SPIR), read the
# kernels' signatures (LLVM-C), generate arguments, sweeps, and the
# guarded child. The OpenCL half runs in sibyl-kernel-run, which must not
# link LLVM 14: OpenCL runtimes (PoCL) carry their own LLVM.
add_library(sibyl-ocl-kernelrun STATIC kernel_sig.c args.c run_cfg.c program.c run.c fenced.c
  cache.c compile.c)
target_compile_definitions(sibyl-ocl-kernelrun PRIVATE SIBYL_CLANG="${CLANG14}"
  SIBYL_VERSION="${PROJECT_VERSION}")
target_link_libraries(sibyl-ocl-kernelrun PUBLIC sibyl-ocl-common PkgConfig::JANSSON sibyl-core)

add_executable(sibyl-kernel-run runner_main.c)
target_link_libraries(sibyl-kernel-run PRIVATE sibyl-ocl-kernelrun m)

# libclang needs to be told where clang's own headers (opencl-c.h) are.
execute_process(COMMAND ${CLANG14} -print-resource-dir OUTPUT_VARIABLE SIBYL_CLANG_RESOURCE_DIR
  OUTPUT_STRIP_TRAILING_WHITESPACE)
add_library(sibyl-ocl-driver STATIC kernel_info.c kernel_types.c counting.c child.c guard.c summary.c sweep.c)
target_include_directories(sibyl-ocl-driver PUBLIC ${LLVM_INCLUDE} ${LIBCLANG_INCLUDE})
target_link_libraries(sibyl-ocl-driver PUBLIC sibyl-ocl-kernelrun sibyl-ocl-instrument
  ${LLVM_LIB} ${LIBCLANG_LIB} PkgConfig::JANSSON PkgConfig::GSL sibyl-core)
target_compile_definitions(sibyl-ocl-driver PRIVATE
  SIBYL_CLANG_RESOURCE_DIR="${SIBYL_CLANG_RESOURCE_DIR}")
add_dependencies(sibyl-ocl-driver sibyl-kernel-run)
