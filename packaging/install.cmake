# What `cmake --install` puts where, and the Debian package CPack makes of
# it (`cpack -G DEB` in the build directory). Installed: bin/dfg, the man
# pages, the bash and zsh completion scripts and the licence; nothing else
# (no test or bench binaries, no libraries, no headers).

include(GNUInstallDirs)

install(TARGETS dfg RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

# Every man/man1/dfg*.1, whatever pages the tree has (man/ is laid out as a
# MANPATH entry, so `MANPATH=man man dfg-run` reads them before install).
install(DIRECTORY ${CMAKE_SOURCE_DIR}/man/man1/
        DESTINATION ${CMAKE_INSTALL_MANDIR}/man1
        FILES_MATCHING PATTERN "dfg*.1")

# Written by the built dfg after each link (cli/CMakeLists.txt), so they
# always match its flags.
install(FILES ${DFG_COMPLETION_DIR}/dfg
        DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions)
install(FILES ${DFG_COMPLETION_DIR}/_dfg
        DESTINATION ${CMAKE_INSTALL_DATADIR}/zsh/site-functions)

install(FILES ${CMAKE_SOURCE_DIR}/LICENSE DESTINATION ${CMAKE_INSTALL_DOCDIR})

# The Debian package: dfg_<version>_<arch>.deb, Depends computed by
# dpkg-shlibdeps from the libraries bin/dfg links (runtime packages only).
set(CPACK_PACKAGE_NAME dfg)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_VENDOR "dfg")
# Debian's synopsis line: under 80 characters.
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "TensorFlow's graph pipeline from the shell: prune, place, partition, run, draw")
set(DFG_PACKAGE_MAINTAINER
    "dfg maintainers <maintainers@users.noreply.a-seed-db74e96d.example>"
    CACHE STRING "Maintainer field of the Debian package")
set(CPACK_PACKAGE_CONTACT ${DFG_PACKAGE_MAINTAINER})
set(CPACK_DEBIAN_PACKAGE_MAINTAINER ${DFG_PACKAGE_MAINTAINER})
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION
    "dfg reimplements the stages TensorFlow runs a graph through in a local
session: it prunes a GraphDef to what the fetches need, places every node on
a device, partitions the graph per device with _Send/_Recv pairs, runs it on
CPU, and draws any of these graphs. Each stage is a subcommand that reads and
writes GraphDef (binary, text or JSON; SavedModels too), so stages chain in
shell pipelines. Comes with man pages and bash and zsh completion.")
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# libjxl is opened at run time, not linked (lib/kernels/CMakeLists.txt), so
# dpkg-shlibdeps cannot see it: the package that holds it is named here.
get_filename_component(dfg_jxl_file ${DFG_JXL_LIBRARY} REALPATH)
execute_process(COMMAND dpkg-query -S ${dfg_jxl_file}
                OUTPUT_VARIABLE dfg_jxl_owner RESULT_VARIABLE dfg_jxl_query
                ERROR_QUIET)
if(dfg_jxl_query EQUAL 0 AND dfg_jxl_owner MATCHES "^([^:, ]+)")
  set(CPACK_DEBIAN_PACKAGE_DEPENDS ${CMAKE_MATCH_1})
endif()
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "bash-completion")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_GENERATOR DEB)
set(CPACK_SOURCE_GENERATOR "")
include(CPack)
