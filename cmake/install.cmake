# Installs flopcast as a CMake package: the public headers, libflopcast_core.a, the
# `flopcast` CLI and flopcastConfig.cmake, so that another project can write
#   find_package(flopcast 0.3 REQUIRED)
#   target_link_libraries(app PRIVATE flopcast::core)
# Included by the top-level CMakeLists.txt (native builds only).
include(CMakePackageConfigHelpers)

set(FLOPCAST_CMAKE_INSTALL_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/flopcast)

# nlohmann_json is header-only and used only inside core/src (no public header includes it but
# io/request_json.hpp, for callers that hold parsed requests, and that one only its json_fwd.hpp),
# so an installed flopcast::core needs nothing from it. CMake still records the PRIVATE link
# of a static library as $<LINK_ONLY:flopcast_json> in its interface, which install(EXPORT)
# refuses (flopcast_json is in no export set): keep it to the build tree. A no-op once the
# top-level CMakeLists.txt links $<BUILD_INTERFACE:flopcast_json> itself.
get_target_property(_flopcast_core_iface flopcast_core INTERFACE_LINK_LIBRARIES)
if(_flopcast_core_iface)
  list(TRANSFORM _flopcast_core_iface REPLACE "^\\$<LINK_ONLY:flopcast_json>$"
                                              "$<BUILD_INTERFACE:$<LINK_ONLY:flopcast_json>>")
  set_property(TARGET flopcast_core PROPERTY INTERFACE_LINK_LIBRARIES ${_flopcast_core_iface})
endif()
unset(_flopcast_core_iface)

# The public headers are C++17: consumers get that standard whatever their default.
target_compile_features(flopcast_core INTERFACE cxx_std_17)
set_target_properties(flopcast_core PROPERTIES EXPORT_NAME core)

install(TARGETS flopcast_core
  EXPORT flopcastTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/core/include/flopcast
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
  FILES_MATCHING PATTERN "*.hpp")
if(TARGET flopcast)
  install(TARGETS flopcast RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  # The report runtime `flopcast report` fills (written by the page's build; OPTIONAL: a build
  # without the page installs the CLI alone, and `flopcast report` says how to get it).
  install(FILES ${PROJECT_SOURCE_DIR}/dist/report-runtime.html DESTINATION ${CMAKE_INSTALL_DATADIR}/flopcast OPTIONAL)
endif()

install(EXPORT flopcastTargets
  NAMESPACE flopcast::
  FILE flopcastTargets.cmake
  DESTINATION ${FLOPCAST_CMAKE_INSTALL_DIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/flopcastConfig.cmake.in
  ${PROJECT_BINARY_DIR}/flopcastConfig.cmake
  INSTALL_DESTINATION ${FLOPCAST_CMAKE_INSTALL_DIR})
# Before 1.0 a minor release may change the API: 0.1 accepts 0.1.x only.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/flopcastConfigVersion.cmake
  VERSION ${PROJECT_VERSION}
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/flopcastConfig.cmake ${PROJECT_BINARY_DIR}/flopcastConfigVersion.cmake
  DESTINATION ${FLOPCAST_CMAKE_INSTALL_DIR})
