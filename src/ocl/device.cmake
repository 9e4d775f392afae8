# `sibyl device`. The measurements run in sibyl-device-run, a separate
# program without LLVM 14 (OpenCL runtimes such as PoCL bring their own
# LLVM, which cannot share a process with it).
# sibyl-ocl-deviceprofile: the device-profile file and its transfer model
#   (device_profile.h, what `sibyl predict` links), the report;
# sibyl-ocl-devicerun: the measurements (in sibyl-device-run only);
# sibyl-ocl-device: what sibyl links: the profile and the child that measures.
add_library(sibyl-ocl-deviceprofile STATIC device_fit.c device_json.c device_report.c)
target_link_libraries(sibyl-ocl-deviceprofile PUBLIC sibyl-core PkgConfig::JANSSON
  PkgConfig::GSL)

add_library(sibyl-ocl-devicerun STATIC device_bench.c device_measure.c device_bandwidth.c
  device_list.c)
target_link_libraries(sibyl-ocl-devicerun PUBLIC sibyl-ocl-deviceprofile sibyl-ocl-common)
add_executable(sibyl-device-run device_run_main.c)
target_link_libraries(sibyl-device-run PRIVATE sibyl-ocl-devicerun)

add_library(sibyl-ocl-device STATIC device_spawn.c)
target_link_libraries(sibyl-ocl-device PUBLIC sibyl-ocl-deviceprofile)
add_dependencies(sibyl-ocl-device sibyl-device-run)
