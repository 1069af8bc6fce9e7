# Run by ctest when it starts (cmake/gtest_chunks.cmake writes the include file that sets chunk_*
# and includes this): lists the binary's cases and adds one ctest test per chunk.
if(NOT EXISTS "${chunk_exe}")
  # Not built: one test that fails and says so (as gtest_discover_tests does).
  add_test("${chunk_target}_NOT_BUILT" "${chunk_target}_NOT_BUILT")
  return()
endif()
execute_process(COMMAND ${chunk_emulator} "${chunk_exe}" --gtest_list_tests
  WORKING_DIRECTORY "${chunk_workdir}" OUTPUT_VARIABLE listing RESULT_VARIABLE status ERROR_VARIABLE errors)
if(NOT status EQUAL 0)
  message(WARNING "${chunk_exe} --gtest_list_tests failed (${status}): ${errors}")
  add_test("${chunk_target}_LISTING_FAILED" "${chunk_target}_LISTING_FAILED")
  return()
endif()

# "Suite.\n  Case  # GetParam() = ...\n": drop the comments (they may hold any character), then
# one list element per line. Names are identifiers, '/' and '.': nothing CMake's lists mind.
string(REGEX REPLACE "  #[^\n]*" "" listing "${listing}")
string(REPLACE "\n" ";" lines "${listing}")

set(chunk_cases)
set(chunk_suite)

# Adds the chunk of the cases collected so far.
macro(flush_chunk)
  list(LENGTH chunk_cases n)
  if(n GREATER 0)
    list(GET chunk_cases 0 first)
    if(n EQUAL 1)
      set(name "${first}")
    else()
      math(EXPR more "${n} - 1")
      set(name "${first}+${more}")
    endif()
    list(JOIN chunk_cases ":" filter)
    add_test("${name}" ${chunk_emulator} "${chunk_exe}" "--gtest_filter=${filter}")
    set_tests_properties("${name}" PROPERTIES WORKING_DIRECTORY "${chunk_workdir}"
      ENVIRONMENT "${chunk_env}" SKIP_REGULAR_EXPRESSION "\\[  SKIPPED \\]")
    if(first MATCHES "Long")
      set_tests_properties("${name}" PROPERTIES COST 1000)
    endif()
  endif()
  set(chunk_cases)
endmacro()

foreach(line IN LISTS lines)
  if(line MATCHES "^  ([^ ]+)")
    set(case "${CMAKE_MATCH_1}")
    if(case MATCHES "^DISABLED_" OR chunk_suite MATCHES "^DISABLED_")
      continue()
    endif()
    set(full "${chunk_suite}${case}")
    list(LENGTH chunk_cases n)
    if(full MATCHES "Long")
      flush_chunk()
      list(APPEND chunk_cases "${full}")
      flush_chunk()
    else()
      if(n GREATER_EQUAL chunk_size)
        flush_chunk()
      endif()
      list(APPEND chunk_cases "${full}")
    endif()
  elseif(line MATCHES "^([^ ]+\\.)$")
    set(chunk_suite "${CMAKE_MATCH_1}")  # before flush_chunk: its MATCHES resets CMAKE_MATCH_1
    flush_chunk()
  endif()
endforeach()
flush_chunk()
