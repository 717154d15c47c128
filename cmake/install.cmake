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
