# FindPTScotch: PT-Scotch with its ParMETIS v3 compatible API (Debian: libscotchparmetis-dev libptscotch-dev).
# Defines PTScotch::PTScotch. Its parmetis.h lives in /usr/include/parmetis on Debian.
find_path(PTScotch_PARMETIS_INCLUDE_DIR parmetis.h PATH_SUFFIXES parmetis scotch NO_DEFAULT_PATH
          PATHS /usr/include /usr/local/include)
find_path(PTScotch_INCLUDE_DIR ptscotch.h PATH_SUFFIXES scotch)
find_library(PTScotch_PARMETIS_LIBRARY NAMES ptscotchparmetisv3 ptscotchparmetis)
find_library(PTScotch_LIBRARY NAMES ptscotch)
find_library(PTScotch_ERR_LIBRARY NAMES ptscotcherr)
find_library(Scotch_LIBRARY NAMES scotch)
find_library(Scotch_ERR_LIBRARY NAMES scotcherr)
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(PTScotch REQUIRED_VARS PTScotch_PARMETIS_LIBRARY PTScotch_LIBRARY
                                  PTScotch_ERR_LIBRARY Scotch_LIBRARY PTScotch_PARMETIS_INCLUDE_DIR)
if(PTScotch_FOUND AND NOT TARGET PTScotch::PTScotch)
  add_library(PTScotch::PTScotch INTERFACE IMPORTED)
  set_target_properties(PTScotch::PTScotch PROPERTIES
    INTERFACE_INCLUDE_DIRECTORIES "${PTScotch_PARMETIS_INCLUDE_DIR}"
    INTERFACE_LINK_LIBRARIES "${PTScotch_PARMETIS_LIBRARY};${PTScotch_LIBRARY};${PTScotch_ERR_LIBRARY};${Scotch_LIBRARY};${Scotch_ERR_LIBRARY}")
endif()
mark_as_advanced(PTScotch_PARMETIS_INCLUDE_DIR PTScotch_INCLUDE_DIR PTScotch_PARMETIS_LIBRARY PTScotch_LIBRARY
                 PTScotch_ERR_LIBRARY Scotch_LIBRARY Scotch_ERR_LIBRARY)
