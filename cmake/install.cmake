# Install tree for clients: the layout that programs written for the vendor toolkit expect
# (see shared spec "client profile" §1), plus a CMake package and a pkg-config file.
#
#   <prefix>/include/{acl,aclnn,aclnnop,...}     public headers
#   <prefix>/include/aclnnop/level2/*.h          forwarding headers (legacy include path)
#   <prefix>/acllib/include -> ../include        legacy include root
#   <prefix>/lib64/libopsnn.so*                  the one real library
#   <prefix>/lib64/lib{ascendcl,nnopbase,...}.so aliases (symlinks to the SONAME file)
#   <prefix>/lib64/cmake/OpsNN/                  find_package(OpsNN) -> OpsNN::opsnn
#   <prefix>/share/cmake/OpsNN/                  forwarders to it (searched on every distribution)
#   <prefix>/lib64/pkgconfig/opsnn.pc            pkg-config --cflags --libs opsnn
#   <prefix>/set_env.sh                          source it: ASCEND_TOOLKIT_HOME, LD_LIBRARY_PATH, ...
#
# Everything is relative, so the tree can be moved after installation.
include(CMakePackageConfigHelpers)

set(OPSNN_INSTALL_LIBDIR lib64)
set(OPSNN_INSTALL_CMAKEDIR ${OPSNN_INSTALL_LIBDIR}/cmake/OpsNN)
set(OPSNN_INSTALL_INCLUDEDIR include)

# Vendor library names a client may link; each becomes a symlink to libopsnn's SONAME file, so
# `-lascendcl` records libopsnn.so.<major> as NEEDED, found next to it in lib64.
set(OPSNN_ALIAS_LIBRARIES
  ascendcl nnopbase opapi acl_op_compiler opapi_nn opapi_math opapi_transformer opapi_cv runtime)

if(NOT TARGET opsnn)
  message(WARNING "cmake/install.cmake: target opsnn not defined; nothing to install")
  return()
endif()

set_target_properties(opsnn PROPERTIES INSTALL_RPATH "$ORIGIN")

install(TARGETS opsnn EXPORT OpsNNTargets
  LIBRARY DESTINATION ${OPSNN_INSTALL_LIBDIR} NAMELINK_COMPONENT Runtime
  ARCHIVE DESTINATION ${OPSNN_INSTALL_LIBDIR}
  RUNTIME DESTINATION bin)

install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/ DESTINATION include
  FILES_MATCHING PATTERN "*.h" PATTERN "*.hpp")

# Links and level2 headers are made at install time (honouring DESTDIR and --prefix), from the
# headers actually installed, so a newly added op header needs no change here.
install(CODE "set(OPSNN_SONAME_FILE \"$<TARGET_SONAME_FILE_NAME:opsnn>\")")
install(CODE "set(OPSNN_ALIAS_LIBRARIES \"${OPSNN_ALIAS_LIBRARIES}\")")
install(CODE "set(OPSNN_INSTALL_LIBDIR \"${OPSNN_INSTALL_LIBDIR}\")")
install(CODE [[
  set(_root "$ENV{DESTDIR}${CMAKE_INSTALL_PREFIX}")
  # Never write through a linked include tree (that would land in someone's source tree).
  if(IS_SYMLINK "${_root}/include" OR IS_SYMLINK "${_root}/include/aclnnop")
    message(FATAL_ERROR "${_root}/include is a symbolic link; refusing to write level2 headers into it")
  endif()

  foreach(_name IN LISTS OPSNN_ALIAS_LIBRARIES)
    set(_link "${_root}/${OPSNN_INSTALL_LIBDIR}/lib${_name}.so")
    message(STATUS "Installing: ${_link} -> ${OPSNN_SONAME_FILE}")
    file(REMOVE "${_link}")
    file(CREATE_LINK "${OPSNN_SONAME_FILE}" "${_link}" SYMBOLIC)
  endforeach()

  file(MAKE_DIRECTORY "${_root}/acllib")
  file(REMOVE "${_root}/acllib/include")
  file(CREATE_LINK "../include" "${_root}/acllib/include" SYMBOLIC)
  message(STATUS "Installing: ${_root}/acllib/include -> ../include")

  set(_level2 "${_root}/include/aclnnop/level2")
  file(REMOVE_RECURSE "${_level2}")
  file(MAKE_DIRECTORY "${_level2}")
  file(GLOB _op_headers RELATIVE "${_root}/include/aclnnop" "${_root}/include/aclnnop/*.h")
  foreach(_h IN LISTS _op_headers)
    string(MAKE_C_IDENTIFIER "OPSNN_LEVEL2_${_h}" _guard)
    string(TOUPPER "${_guard}" _guard)
    file(WRITE "${_level2}/${_h}"
      "/* OpsNN: legacy include path; forwards to aclnnop/${_h}. */\n"
      "#ifndef ${_guard}\n#define ${_guard}\n#include \"../${_h}\"\n#endif\n")
  endforeach()
  list(LENGTH _op_headers _n)
  message(STATUS "Installing: ${_level2}/ (${_n} forwarding headers)")
]])

# set_env.sh: computes its own location when sourced, so it needs no configured paths.
configure_file(${PROJECT_SOURCE_DIR}/cmake/set_env.sh.in ${PROJECT_BINARY_DIR}/set_env.sh @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/set_env.sh DESTINATION .
  PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)

# CMake package.
install(EXPORT OpsNNTargets NAMESPACE OpsNN:: DESTINATION ${OPSNN_INSTALL_CMAKEDIR}
  FILE OpsNNTargets.cmake)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/OpsNNConfig.cmake.in
  ${PROJECT_BINARY_DIR}/OpsNNConfig.cmake
  INSTALL_DESTINATION ${OPSNN_INSTALL_CMAKEDIR}
  PATH_VARS OPSNN_INSTALL_INCLUDEDIR)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/OpsNNConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
install(FILES ${PROJECT_BINARY_DIR}/OpsNNConfig.cmake ${PROJECT_BINARY_DIR}/OpsNNConfigVersion.cmake
  DESTINATION ${OPSNN_INSTALL_CMAKEDIR})
# Debian's CMake does not search lib64/ for packages: forwarders in share/cmake/OpsNN/ make
# find_package(OpsNN) work with just <prefix> on CMAKE_PREFIX_PATH on every distribution.
foreach(_f OpsNNConfig.cmake OpsNNConfigVersion.cmake)
  file(CONFIGURE OUTPUT ${PROJECT_BINARY_DIR}/share-forward/${_f} @ONLY CONTENT [[
# Forwards to the package in @OPSNN_INSTALL_CMAKEDIR@/.
include("${CMAKE_CURRENT_LIST_DIR}/../../../@OPSNN_INSTALL_CMAKEDIR@/@_f@")
]])
  install(FILES ${PROJECT_BINARY_DIR}/share-forward/${_f} DESTINATION share/cmake/OpsNN)
endforeach()

# pkg-config (paths relative to the .pc file, so the tree stays relocatable).
configure_file(${PROJECT_SOURCE_DIR}/cmake/opsnn.pc.in ${PROJECT_BINARY_DIR}/opsnn.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/opsnn.pc DESTINATION ${OPSNN_INSTALL_LIBDIR}/pkgconfig)
