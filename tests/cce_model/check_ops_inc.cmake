# Fails when include/pto/model/ops.inc is not what gen_ops writes from the
# op table (rebuild target cce_model_ops_inc_update to rewrite it).
execute_process(COMMAND ${GEN} OUTPUT_VARIABLE got RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cce_model_gen_ops failed (${rc})")
endif()
file(READ ${WANT} want)
if(NOT got STREQUAL want)
  message(FATAL_ERROR "${WANT} is stale: run `cmake --build build --target cce_model_ops_inc_update`")
endif()
