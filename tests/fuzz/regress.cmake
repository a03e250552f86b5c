# Fuzz regression inputs, checked in every build (no fuzzer needed): ptoas
# must answer each file in tests/fuzz/regressions/, tests/fuzz/seeds/ and the
# generated seeds with exit status 0 or 1, never a crash, a sanitizer report or
# a hang. Included from tests/CMakeLists.txt.
#
# The fuzzer's dictionary and the generated seeds (the generic form of every
# op, the DPS/SSA/assembly forms of every DPS op) are written at build time by
# fuzz_gen from the op table and the binder's keywords, into
# <build>/fuzz-gen/pto.dict and <build>/fuzz-gen/seeds (target fuzz_inputs;
# `make fuzz` passes them to libFuzzer).
add_executable(fuzz_gen ${CMAKE_CURRENT_LIST_DIR}/fuzz_gen.cpp)
target_link_libraries(fuzz_gen PRIVATE ptoas_asm)
set(PTOAS_FUZZ_GEN_DIR ${CMAKE_BINARY_DIR}/fuzz-gen)
file(GLOB _ptoas_binder_srcs CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/asm/binder_*.cpp)
add_custom_command(
  OUTPUT ${PTOAS_FUZZ_GEN_DIR}/pto.dict
  COMMAND ${CMAKE_COMMAND} -E rm -rf ${PTOAS_FUZZ_GEN_DIR}/seeds
  COMMAND ${CMAKE_COMMAND} -E make_directory ${PTOAS_FUZZ_GEN_DIR}/seeds
  COMMAND fuzz_gen ${PTOAS_FUZZ_GEN_DIR}/pto.dict ${PTOAS_FUZZ_GEN_DIR}/seeds ${_ptoas_binder_srcs}
  DEPENDS fuzz_gen ${_ptoas_binder_srcs} ${CMAKE_SOURCE_DIR}/asm/ops.def
  COMMENT "Generating the fuzz dictionary and seeds from the op table"
  VERBATIM)
add_custom_target(fuzz_inputs ALL DEPENDS ${PTOAS_FUZZ_GEN_DIR}/pto.dict)

add_test(NAME fuzz_dictionary
         COMMAND ${CMAKE_COMMAND} -DDICT=${PTOAS_FUZZ_GEN_DIR}/pto.dict
                 -DOPS=${CMAKE_SOURCE_DIR}/asm/ops.def
                 -DSEEDS=${PTOAS_FUZZ_GEN_DIR}/seeds
                 -P ${CMAKE_CURRENT_LIST_DIR}/dict_check.cmake)
set_tests_properties(fuzz_dictionary PROPERTIES LABELS "fuzz;frontend")

# The generated seeds (a thousand) through fuzz_frontend's checks in one
# process (fuzz_replay.cpp, a plain main instead of libFuzzer's): 2 s, where
# two ptoas processes each took 30 s, and 300 s under ASan. The hand-written
# seeds and the regressions go through the program itself.
add_executable(fuzz_replay ${CMAKE_CURRENT_LIST_DIR}/fuzz_replay.cpp ${CMAKE_CURRENT_LIST_DIR}/fuzz_frontend.cpp)
target_link_libraries(fuzz_replay PRIVATE ptoas_asm ptoas_opt)
add_test(NAME fuzz_generated_seeds COMMAND fuzz_replay ${PTOAS_FUZZ_GEN_DIR}/seeds)
set_tests_properties(fuzz_generated_seeds PROPERTIES
  LABELS "fuzz;frontend"
  TIMEOUT 600
  ENVIRONMENT "ASAN_OPTIONS=exitcode=99;UBSAN_OPTIONS=exitcode=99:halt_on_error=1:print_stacktrace=1")

if(TARGET ptoas)
  set(_ptoas_fuzz_sets regressions ${CMAKE_CURRENT_LIST_DIR}/regressions
                       seeds ${CMAKE_CURRENT_LIST_DIR}/seeds)
  while(_ptoas_fuzz_sets)
    list(POP_FRONT _ptoas_fuzz_sets _set _dir)
    add_test(NAME fuzz_${_set}
             COMMAND ${CMAKE_COMMAND} -DPTOAS=$<TARGET_FILE:ptoas> -DDIR=${_dir}
                     -P ${CMAKE_CURRENT_LIST_DIR}/regress_run.cmake)
    set_tests_properties(fuzz_${_set} PROPERTIES
      LABELS "fuzz;frontend"
      TIMEOUT 600
      ENVIRONMENT "ASAN_OPTIONS=exitcode=99;UBSAN_OPTIONS=exitcode=99:halt_on_error=1:print_stacktrace=1")
  endwhile()
endif()
