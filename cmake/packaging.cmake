# `scripts/package.sh`: a .deb built by CPack, its Depends computed by dpkg-shlibdeps from the
# libraries the binary really links. Included from the top-level CMakeLists.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME attnscope)
set(CPACK_PACKAGE_VENDOR "AttnScope developers")
set(CPACK_PACKAGE_CONTACT "AttnScope developers <attnscope@users.noreply.github.com>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "see and understand attention in Transformers")
set(CPACK_PACKAGE_DESCRIPTION
    "AttnScope shows attention per head and per layer, the selected query's computation step by
step, live controls for scaling, masking, temperature and heads, a 2-D playground of queries,
keys and values, eight theory lenses, and real model attention from BertViz, CircuitsVis and
NumPy files. A headless command line renders the same figures and computes every stage.")
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# The Python module (import attnscope) needs python3 and numpy; the program does not.
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "python3, python3-numpy")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_STRIP_FILES ON)
include(CPack)
