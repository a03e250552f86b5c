# cmake -DPTOAS=<ptoas> -DDIR=<dir> -P regress_run.cmake
# Runs `ptoas --emit=ir FILE -o -` on every file in DIR (README* excepted);
# fails if any run ends other than with exit status 0 or 1 within 10 s, or
# if the IR of an accepted file, read back, is refused or prints differently
# (printing is a fixed point, DESIGN §3; fuzz_frontend's check).
if(NOT PTOAS OR NOT DIR)
  message(FATAL_ERROR "usage: cmake -DPTOAS=<ptoas> -DDIR=<dir> -P regress_run.cmake")
endif()
file(GLOB _files LIST_DIRECTORIES false "${DIR}/*")
list(SORT _files)
set(_n 0)
set(_bad 0)
# The printed IR, read back: one file per DIR, since the three tests that run
# this script share a working directory and run in parallel.
string(MD5 _dir_hash "${DIR}")
set(_printed "${CMAKE_CURRENT_BINARY_DIR}/regress_printed_${_dir_hash}.pto")
foreach(_f IN LISTS _files)
  get_filename_component(_name "${_f}" NAME)
  if(_name MATCHES "^README")
    continue()
  endif()
  math(EXPR _n "${_n} + 1")
  execute_process(COMMAND "${PTOAS}" --emit=ir "${_f}" -o -
                  INPUT_FILE /dev/null
                  OUTPUT_VARIABLE _out ERROR_VARIABLE _err
                  RESULT_VARIABLE _rc TIMEOUT 10)
  if(NOT _rc MATCHES "^[01]$")
    math(EXPR _bad "${_bad} + 1")
    string(SUBSTRING "${_err}" 0 2000 _err)
    message("FAIL ${_name}: ${_rc}\n${_err}")
  elseif(_rc EQUAL 0)
    file(WRITE "${_printed}" "${_out}")
    execute_process(COMMAND "${PTOAS}" --emit=ir "${_printed}" -o -
                    INPUT_FILE /dev/null
                    OUTPUT_VARIABLE _out2 ERROR_VARIABLE _err2
                    RESULT_VARIABLE _rc2 TIMEOUT 10)
    if(NOT _rc2 EQUAL 0 OR NOT _out2 STREQUAL _out)
      math(EXPR _bad "${_bad} + 1")
      string(SUBSTRING "${_err2}" 0 2000 _err2)
      message("FAIL ${_name}: its printed IR reads back ${_rc2}, not as printed\n${_err2}")
    endif()
  endif()
endforeach()
file(REMOVE "${_printed}")
message("fuzz ${DIR}: ${_n} files, ${_bad} crashed, hung or broke the print fixed point")
if(_bad GREATER 0)
  message(FATAL_ERROR "${_bad} of ${_n} files crashed, hung or broke the print fixed point")
endif()
