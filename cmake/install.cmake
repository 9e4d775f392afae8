# `cmake --install BUILD --prefix PREFIX` (or `make install PREFIX=...`):
# a relocatable layout.  sibyl finds everything else relative to its own
# executable (docs/install.md), so PREFIX can be moved or copied whole.
#
#   bin/sibyl
#   libexec/sibyl/      the helper processes (plan worker, kernel and device runners)
#   lib/                libsibyl-rt.so and libsibyl-regions.so (preloaded by
#                       `sibyl trace`, linked by `sibyl wrap`), libsibyl-audit.so
#                       (its LD_AUDIT module, next to the runtime), libsibyl-trace.so
#   lib/sibyl/adapters/ the accelerated implementations and their planner adapters
#   lib/pkgconfig/sibyl.pc
#   include/sibyl/      trace.h, trace_format.h (the reader), adapter.h, wrap_rt.h
#   share/sibyl/generators/   NAME.gen template generators found by `sibyl wrap`
#   share/man/man1, share/bash-completion/completions, share/doc/sibyl

# Relative to bin/ in the code (../lib, ../libexec/sibyl, ../include,
# ../share/sibyl/generators): these directories are fixed, not options.
set(SIBYL_INSTALL_LIB lib)

install(TARGETS sibyl RUNTIME DESTINATION bin)
install(TARGETS sibyl-plan-worker sibyl-plan-one-time sibyl-kernel-run sibyl-device-run
  RUNTIME DESTINATION libexec/sibyl)
install(TARGETS sibyl-rt sibyl-regions sibyl-audit LIBRARY DESTINATION ${SIBYL_INSTALL_LIB})
install(TARGETS sibyl-trace-shared LIBRARY DESTINATION ${SIBYL_INSTALL_LIB})
install(TARGETS sibyl-accel-blas sibyl-accel-clblast sibyl-accel-aes
  LIBRARY DESTINATION ${SIBYL_INSTALL_LIB}/sibyl/adapters)
install(FILES include/sibyl/trace.h include/sibyl/trace_format.h include/sibyl/adapter.h
  include/sibyl/wrap_rt.h DESTINATION include/sibyl)
install(DIRECTORY DESTINATION share/sibyl/generators)
install(DIRECTORY ${CMAKE_BINARY_DIR}/share/man/man1 DESTINATION share/man)
install(FILES ${CMAKE_BINARY_DIR}/share/bash-completion/completions/sibyl
  DESTINATION share/bash-completion/completions)
install(FILES LICENSE README.md DESTINATION share/doc/sibyl)
install(DIRECTORY docs/ DESTINATION share/doc/sibyl/docs FILES_MATCHING PATTERN "*.md")
install(FILES examples/matmul.c examples/blas.defs examples/openssl.defs
  DESTINATION share/doc/sibyl/examples)

# pkg-config, relative to the .pc file itself (pcfiledir) so that a
# moved prefix still works.
configure_file(${CMAKE_SOURCE_DIR}/cmake/sibyl.pc.in ${CMAKE_BINARY_DIR}/sibyl.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/sibyl.pc DESTINATION ${SIBYL_INSTALL_LIB}/pkgconfig)
