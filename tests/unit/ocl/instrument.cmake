# The instruction counter's test host (driven by the instcount_* integration
# tests against Oclgrind) and its unit tests.
add_executable(instcount-host ${CMAKE_CURRENT_SOURCE_DIR}/instcount_host.c)
target_link_libraries(instcount-host PRIVATE sibyl-ocl-instrument sibyl-ocl-common)
sibyl_unit_test(test_instcounts SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_instcounts.c
  LIBS sibyl-ocl-instrument)
