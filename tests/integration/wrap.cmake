# sibyl wrap integration tests (included from tests/integration/CMakeLists.txt).
sibyl_script_test(wrap_blas ${CMAKE_CURRENT_SOURCE_DIR}/wrap_blas.sh)
sibyl_script_test(wrap_openssl ${CMAKE_CURRENT_SOURCE_DIR}/wrap_openssl.sh)
sibyl_script_test(wrap_jpeg ${CMAKE_CURRENT_SOURCE_DIR}/wrap_jpeg.sh)
# The invocations a new user tries first (wrap, report, export).
sibyl_script_test(natural_invocation ${CMAKE_CURRENT_SOURCE_DIR}/natural_invocation.sh)
