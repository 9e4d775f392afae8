# sibyl kernel: argument generation, half conversion, sweeps' ranges,
# signature JSON, cache keys.
sibyl_unit_test(test_kernel_args SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_kernel_args.c
  LIBS sibyl-ocl-driver)
# sibyl kernel -i --json: instruction counts as records.
sibyl_unit_test(test_instcounts_json SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_instcounts_json.c
  LIBS sibyl-ocl-driver)
# sibyl kernel --check: findings from the runner's digests.
sibyl_unit_test(test_check SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_check.c
  LIBS sibyl-ocl-driver)
