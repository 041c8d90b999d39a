# Run at every build (see CMakeLists.txt): writes version.hpp with the current git SHA. configure_file only
# touches the file when its content changes, so an unchanged SHA triggers no rebuild.
execute_process(COMMAND git rev-parse --short=12 HEAD WORKING_DIRECTORY ${SOURCE_DIR}
                OUTPUT_VARIABLE GRAPHRF_GIT_SHA OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
if(NOT GRAPHRF_GIT_SHA)
  set(GRAPHRF_GIT_SHA "unknown")
endif()
execute_process(COMMAND git status --porcelain --untracked-files=no WORKING_DIRECTORY ${SOURCE_DIR}
                OUTPUT_VARIABLE _dirty OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
if(_dirty)
  set(GRAPHRF_GIT_SHA "${GRAPHRF_GIT_SHA}-dirty")
endif()
configure_file(${SOURCE_DIR}/cmake/version.hpp.in ${OUTPUT} @ONLY)
