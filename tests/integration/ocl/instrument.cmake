# The instruction counter against Oclgrind (tests/kernels/control).
sibyl_script_test(instcount_oclgrind ${CMAKE_CURRENT_SOURCE_DIR}/instcount_oclgrind.sh)
set_tests_properties(instcount_oclgrind PROPERTIES ENVIRONMENT_MODIFICATION "CLANG14=set:${CLANG14}")
sibyl_script_test(instcount_e2e ${CMAKE_CURRENT_SOURCE_DIR}/instcount_e2e.sh)
sibyl_script_test(instcount_source ${CMAKE_CURRENT_SOURCE_DIR}/instcount_source.sh)
