# The instruction counter's test host (driven by the instcount_* integration
# tests against Oclgrind) and its unit tests.  The host instruments and
# decodes (LLVM 14); the kernel runs in instcount-run, which links no LLVM
# (OpenCL runtimes bring their own).
add_executable(instcount-host ${CMAKE_CURRENT_SOURCE_DIR}/instcount_host.c)
target_link_libraries(instcount-host PRIVATE sibyl-ocl-instrument sibyl-core)
add_executable(instcount-run ${CMAKE_CURRENT_SOURCE_DIR}/instcount_run.c)
target_link_libraries(instcount-run PRIVATE sibyl-ocl-common sibyl-core)
add_dependencies(instcount-host instcount-run)
sibyl_unit_test(test_instcounts SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_instcounts.c
  LIBS sibyl-ocl-instrument)
# --check's race probe: its log's analysis.
sibyl_unit_test(test_races SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_races.c
  LIBS sibyl-ocl-instrument)
