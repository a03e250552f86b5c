# The Bison reference grammar (grammar/pto.y) as a library and a checker.
# Included from grammar/CMakeLists.txt when pto.y exists.
#
#   ptoas_bison  the generated LALR(1) parser + adapter: ptoas::bison_parse()
#                on a token vector from ptoas::tokenize (bison_adapter.h)
#   ptocheck     build/ptocheck [-q] FILE...: runs the grammar alone;
#                exit 0 iff every file is accepted, 1 if one is rejected,
#                2 on a usage error or an unreadable file
#
# %expect 0 in pto.y makes any shift/reduce or reduce/reduce conflict a
# build error; -Wcounterexamples makes Bison explain it.
bison_target(pto_parser ${CMAKE_CURRENT_SOURCE_DIR}/pto.y
             ${CMAKE_CURRENT_BINARY_DIR}/pto_parser.cpp
             DEFINES_FILE ${CMAKE_CURRENT_BINARY_DIR}/pto_parser.h
             COMPILE_FLAGS "-Wall -Wcounterexamples")

add_library(ptoas_bison STATIC ${BISON_pto_parser_OUTPUTS}
            ${CMAKE_CURRENT_SOURCE_DIR}/bison_adapter.cpp)
target_include_directories(ptoas_bison PUBLIC ${CMAKE_CURRENT_SOURCE_DIR}
                           PRIVATE ${CMAKE_CURRENT_BINARY_DIR})
target_link_libraries(ptoas_bison PUBLIC ptoas_lexer)
set_target_properties(ptoas_bison PROPERTIES POSITION_INDEPENDENT_CODE ON)

# ptocheck needs ptoas::tokenize (op-name classification) from ptoas_asm,
# which asm/CMakeLists.txt defines after this file; CMake resolves it later.
add_executable(ptocheck ${CMAKE_CURRENT_SOURCE_DIR}/ptocheck_main.cpp)
target_link_libraries(ptocheck PRIVATE ptoas_bison ptoas_asm)
set_target_properties(ptocheck PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR})
