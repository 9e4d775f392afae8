# sibyl device on the real PoCL device, and under Oclgrind as the platform
sibyl_script_test(ocl_device_profile ${CMAKE_CURRENT_SOURCE_DIR}/device_profile.sh)
sibyl_script_test(ocl_device_errors ${CMAKE_CURRENT_SOURCE_DIR}/device_errors.sh)
sibyl_script_test(ocl_device_oclgrind ${CMAKE_CURRENT_SOURCE_DIR}/device_oclgrind.sh)
