# sibyl kernel: arguments of every kind, listing and refusals, running
# (times, crash, timeout, sweeps, cache), Oclgrind as the platform.
foreach(t args list run cache numbers oclgrind failures ndrange controls legacy images check
    sizes)
  sibyl_script_test(kernel_${t} ${CMAKE_CURRENT_SOURCE_DIR}/kernel_${t}.sh)
endforeach()
