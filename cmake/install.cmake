# Installation as a Debian desktop application: the binary, its .desktop entry, the scalable
# icon, AppStream metadata, the man page and the licence notices. Included from app/.
include(GNUInstallDirs)
# The package is attnscope (CMAKE_INSTALL_DOCDIR would follow the project name, AttnScope).
set(ATTN_DOCDIR ${CMAKE_INSTALL_DATADIR}/doc/attnscope)

install(TARGETS attnscope RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(FILES ${PROJECT_SOURCE_DIR}/resources/org.attnscope.AttnScope.desktop
        DESTINATION ${CMAKE_INSTALL_DATADIR}/applications)
install(FILES ${PROJECT_SOURCE_DIR}/resources/icons/attnscope.svg
        DESTINATION ${CMAKE_INSTALL_DATADIR}/icons/hicolor/scalable/apps)
install(FILES ${PROJECT_SOURCE_DIR}/resources/org.attnscope.AttnScope.metainfo.xml
        DESTINATION ${CMAKE_INSTALL_DATADIR}/metainfo)

# Debian ships man pages compressed (-n: no name or time stamp, so the build is reproducible).
find_program(ATTN_GZIP gzip REQUIRED)
set(ATTN_MAN_GZ ${CMAKE_CURRENT_BINARY_DIR}/attnscope.1.gz)
add_custom_command(
  OUTPUT ${ATTN_MAN_GZ}
  COMMAND ${ATTN_GZIP} -9n -c ${PROJECT_SOURCE_DIR}/resources/man/attnscope.1 > ${ATTN_MAN_GZ}
  DEPENDS ${PROJECT_SOURCE_DIR}/resources/man/attnscope.1
  COMMENT "Compressing the man page")
add_custom_target(attnscope_man ALL DEPENDS ${ATTN_MAN_GZ})
install(FILES ${ATTN_MAN_GZ} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)

install(FILES ${PROJECT_SOURCE_DIR}/LICENSE ${PROJECT_SOURCE_DIR}/README.md
        DESTINATION ${ATTN_DOCDIR})
install(FILES ${PROJECT_SOURCE_DIR}/tests/data/real/README.md
        RENAME examples-README.md DESTINATION ${ATTN_DOCDIR})
install(FILES ${PROJECT_SOURCE_DIR}/tests/data/real/LICENSE-Apache-2.0.txt
              ${PROJECT_SOURCE_DIR}/tests/data/real/LICENSE-MIT-transformer-explainer.txt
        DESTINATION ${ATTN_DOCDIR})

# The Python module (python/attnscope, pure Python + numpy) where that prefix's python3 finds
# it: Debian's own /usr/lib/python3/dist-packages for the package (a prefix ending in /usr,
# CPack's staging folder included), /usr/local/lib/python3.X/dist-packages for /usr/local, and
# lib/python3.X/site-packages anywhere else, which for --prefix ~/.local is the user's site
# folder. The version is the one of the python3 found now (Debian 12: 3.11).
find_program(ATTN_PYTHON3 NAMES python3 PATHS /usr/bin NO_DEFAULT_PATH)
set(ATTN_PYTHON_VERSION 3.11)
if(ATTN_PYTHON3)
  execute_process(COMMAND ${ATTN_PYTHON3} -c "import sys; print('%d.%d' % sys.version_info[:2])"
                  OUTPUT_VARIABLE ATTN_PYTHON_VERSION OUTPUT_STRIP_TRAILING_WHITESPACE)
endif()
install(CODE "
  set(_attn_prefix \"\${CMAKE_INSTALL_PREFIX}\")
  if(_attn_prefix MATCHES \"/usr/?$\")
    set(_attn_py lib/python3/dist-packages)
  elseif(_attn_prefix MATCHES \"^/usr/local/?$\")
    set(_attn_py lib/python${ATTN_PYTHON_VERSION}/dist-packages)
  else()
    set(_attn_py lib/python${ATTN_PYTHON_VERSION}/site-packages)
  endif()
  file(INSTALL DESTINATION \"\${_attn_prefix}/\${_attn_py}\" TYPE DIRECTORY
       FILES \"${PROJECT_SOURCE_DIR}/python/attnscope\" FILES_MATCHING PATTERN \"*.py\" PATTERN \"__pycache__\" EXCLUDE)
")
