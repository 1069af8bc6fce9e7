# opsnn_add_gtest_chunks(<target> [CHUNK n] [ENVIRONMENT "VAR=value;..."] [LABEL label])
#
# Registers a GoogleTest binary with ctest as chunks of up to n test cases (default 8) instead of
# one ctest test per case (gtest_discover_tests). Why: the ops binary holds thousands of cases and
# each process spends ~30-60 ms registering all of them before running one (GoogleTest's
# parameterized-test registration); one process per case cost CI minutes in every stage, most under
# qemu and the sanitizers.
#
# Like gtest_discover_tests(DISCOVERY_MODE PRE_TEST), the list is taken when ctest starts
# (`--gtest_list_tests` under ctest's environment, so OPSNN_TABLE_SAMPLE picks the same cases the
# chunks then run). A chunk holds consecutive cases of one test suite and is named after its first
# case: "Suite.Test/Param" alone, "Suite.Test/Param+7" for it and the 7 cases after it. A failing
# chunk prints GoogleTest's own report naming the failed case (rerun it alone with
# `<binary> --gtest_filter=<name>`). Cases whose name contains "Long" are the known slow ones: each
# is a chunk of its own with a high COST, so ctest -j starts them first instead of ending on them.
# A chunk in which GoogleTest reports a skipped case is reported skipped as a whole (never counted
# as passed).
set(OPSNN_GTEST_CHUNKS_SCRIPT ${CMAKE_CURRENT_LIST_DIR}/gtest_chunks_discover.cmake)

function(opsnn_add_gtest_chunks target)
  cmake_parse_arguments(ARG "" "CHUNK;LABEL" "ENVIRONMENT" ${ARGN})
  if(NOT ARG_CHUNK)
    set(ARG_CHUNK 8)
  endif()
  get_property(emulator TARGET ${target} PROPERTY CROSSCOMPILING_EMULATOR)
  if(NOT emulator AND CMAKE_CROSSCOMPILING)
    set(emulator ${CMAKE_CROSSCOMPILING_EMULATOR})
  endif()
  set(include_file ${CMAKE_CURRENT_BINARY_DIR}/${target}_chunks.cmake)
  file(GENERATE OUTPUT ${include_file} CONTENT
"set(chunk_target [==[${target}]==])
set(chunk_exe [==[$<TARGET_FILE:${target}>]==])
set(chunk_emulator [==[${emulator}]==])
set(chunk_size ${ARG_CHUNK})
set(chunk_env [==[${ARG_ENVIRONMENT}]==])
set(chunk_label [==[${ARG_LABEL}]==])
set(chunk_workdir [==[${CMAKE_CURRENT_BINARY_DIR}]==])
include([==[${OPSNN_GTEST_CHUNKS_SCRIPT}]==])
")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES ${include_file})
endfunction()
