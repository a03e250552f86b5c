# Fuzz regression inputs, checked in every build (no fuzzer needed): ptoas
# must answer each file in tests/fuzz/regressions/ and tests/fuzz/seeds/ with
# exit status 0 or 1, never a crash, a sanitizer report or a hang.
# Included from tests/CMakeLists.txt.
if(TARGET ptoas)
  foreach(_set regressions seeds)
    add_test(NAME fuzz_${_set}
             COMMAND ${CMAKE_COMMAND} -DPTOAS=$<TARGET_FILE:ptoas>
                     -DDIR=${CMAKE_CURRENT_LIST_DIR}/${_set}
                     -P ${CMAKE_CURRENT_LIST_DIR}/regress_run.cmake)
    set_tests_properties(fuzz_${_set} PROPERTIES
      LABELS "fuzz;frontend"
      TIMEOUT 600
      ENVIRONMENT "ASAN_OPTIONS=exitcode=99;UBSAN_OPTIONS=exitcode=99:halt_on_error=1:print_stacktrace=1")
  endforeach()
endif()
