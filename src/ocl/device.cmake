# sibyl-ocl-device: `sibyl device` (measurements, bandwidth curve, report)
# and the device-profile file with its transfer model (device_profile.h).
add_library(sibyl-ocl-device STATIC device_bench.c device_measure.c device_bandwidth.c
  device_list.c device_fit.c device_json.c device_report.c)
target_link_libraries(sibyl-ocl-device PUBLIC sibyl-ocl-common PkgConfig::JANSSON
  PkgConfig::GSL)
