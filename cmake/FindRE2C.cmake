# FindRE2C: locates the re2c lexer generator (CMake ships no such module).
#   RE2C_EXECUTABLE, RE2C_VERSION, RE2C_FOUND
#   re2c_target(NAME <input.re> <output.cpp> [OPTIONS ...] [DEPENDS ...])
#     defines RE2C_<NAME>_OUTPUTS
find_program(RE2C_EXECUTABLE NAMES re2c DOC "re2c lexer generator")
if(RE2C_EXECUTABLE)
  execute_process(COMMAND ${RE2C_EXECUTABLE} --version
                  OUTPUT_VARIABLE _re2c_out OUTPUT_STRIP_TRAILING_WHITESPACE)
  string(REGEX MATCH "[0-9]+\\.[0-9]+(\\.[0-9]+)?" RE2C_VERSION "${_re2c_out}")
endif()
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(RE2C REQUIRED_VARS RE2C_EXECUTABLE VERSION_VAR RE2C_VERSION)

function(re2c_target name input output)
  cmake_parse_arguments(R "" "" "OPTIONS;DEPENDS" ${ARGN})
  add_custom_command(
    OUTPUT ${output}
    COMMAND ${RE2C_EXECUTABLE} ${R_OPTIONS} --no-generation-date --no-version -o ${output} ${input}
    DEPENDS ${input} ${R_DEPENDS}
    COMMENT "re2c ${input}"
    VERBATIM)
  set(RE2C_${name}_OUTPUTS ${output} PARENT_SCOPE)
endfunction()
