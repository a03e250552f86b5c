# The installed CMake package (lib/cmake/ptoas: find_package(ptoas) gives
# ptoas::ptoas and ptoas::ptort, versioned from project()) and the
# pkg-config file (lib/pkgconfig/ptort.pc). Both are relocatable: the
# package's paths are relative to its own directory, the .pc file's to
# ${pcfiledir}.
include(CMakePackageConfigHelpers)
install(EXPORT ptoasTargets NAMESPACE ptoas:: DESTINATION lib/cmake/ptoas)
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/ptoasConfig.cmake.in
  ${CMAKE_BINARY_DIR}/package/ptoasConfig.cmake INSTALL_DESTINATION lib/cmake/ptoas)
# 0.x: a minor version may change the API, so only the same minor matches.
write_basic_package_version_file(${CMAKE_BINARY_DIR}/package/ptoasConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/package/ptoasConfig.cmake ${CMAKE_BINARY_DIR}/package/ptoasConfigVersion.cmake
  DESTINATION lib/cmake/ptoas)
configure_file(${CMAKE_CURRENT_LIST_DIR}/ptort.pc.in ${CMAKE_BINARY_DIR}/package/ptort.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/package/ptort.pc DESTINATION lib/pkgconfig)
