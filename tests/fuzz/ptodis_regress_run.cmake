# cmake -DPTODIS=<ptodis> -DDIR=<dir> -P ptodis_regress_run.cmake
# Runs `ptodis FILE` and `ptodis --no-source FILE` on every file in DIR
# (README* excepted); fails if any run ends other than with exit status 0 or
# 1 (1 with a `ptodis: error:` message) within 20 s.
if(NOT PTODIS OR NOT DIR)
  message(FATAL_ERROR "usage: cmake -DPTODIS=<ptodis> -DDIR=<dir> -P ptodis_regress_run.cmake")
endif()
file(GLOB _files LIST_DIRECTORIES false "${DIR}/*")
list(SORT _files)
set(_n 0)
set(_bad 0)
foreach(_f IN LISTS _files)
  get_filename_component(_name "${_f}" NAME)
  if(_name MATCHES "^README")
    continue()
  endif()
  math(EXPR _n "${_n} + 1")
  foreach(_flag "" "--no-source")
    execute_process(COMMAND "${PTODIS}" ${_flag} "${_f}"
                    INPUT_FILE /dev/null
                    OUTPUT_QUIET ERROR_VARIABLE _err
                    RESULT_VARIABLE _rc TIMEOUT 20)
    if(NOT _rc MATCHES "^[01]$" OR (_rc STREQUAL "1" AND NOT _err MATCHES "^ptodis: error: "))
      math(EXPR _bad "${_bad} + 1")
      string(SUBSTRING "${_err}" 0 2000 _err)
      message("FAIL ${_name} ${_flag}: ${_rc}\n${_err}")
    endif()
  endforeach()
endforeach()
message("ptodis regressions in ${DIR}: ${_n} files, ${_bad} runs crashed, hung or said nothing")
if(_bad GREATER 0)
  message(FATAL_ERROR "${_bad} runs over ${_n} files failed")
endif()
