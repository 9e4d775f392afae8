# unit tests of the device profile (src/ocl/device_*.c)
sibyl_unit_test(test_ocl_device_profile SOURCES test_device_profile.c
  LIBS sibyl-ocl-deviceprofile PkgConfig::JANSSON)
add_executable(ocl_device_fit_driver device_fit_driver.c)
target_link_libraries(ocl_device_fit_driver PRIVATE sibyl-ocl-deviceprofile)
add_test(NAME ocl_device_fit_numpy
  COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/device_fit_numpy.sh $<TARGET_FILE:ocl_device_fit_driver>)
set_tests_properties(ocl_device_fit_numpy PROPERTIES LABELS unit)
add_executable(ocl_device_predict_driver device_predict_driver.c)
target_link_libraries(ocl_device_predict_driver PRIVATE sibyl-ocl-deviceprofile)
