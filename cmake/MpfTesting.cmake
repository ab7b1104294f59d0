# Test helpers. Every test is registered with CTest and carries a label:
#   unit         GoogleTest tests of one library layer (tests/unit/<layer>)
#   integration  jobs started with mpfrun, and tests of the commands
#   conformance  API conformance programs
#   slow         anything that takes more than a few seconds
#
# mpf_add_unit_test(NAME <name> SOURCES <files...> [LIBS <targets...>])
#   A GoogleTest executable; each TEST() becomes its own CTest test.
#
# mpf_add_job_test(NAME <name> NP <n> PROGRAM <target-or-path> [ARGS <args...>]
#                  [MPFRUN_ARGS <options...>] [EXPECT_EXIT <code>]
#                  [EXPECT_OUTPUT <regex...>] [REJECT_OUTPUT <regex...>]
#                  [EXPECT_COUNTERS <python-expression>]
#                  [TIMEOUT <seconds>] [LABELS <labels...>])
#   Runs `mpfrun --timeout <seconds> -n <n> <options> <program> <args>` through
#   tests/harness/run_job.py, which checks the exit status, the output, and that
#   the job left nothing behind; with EXPECT_COUNTERS, that a Python
#   expression over the job's counters (mpfrun --report), summed over its
#   ranks, is true. A job that outlives its timeout is stopped by mpfrun,
#   which prints what every rank was doing first; CTest's own timeout is set
#   above it so that mpfrun's diagnosis always reaches the log.
#
# mpf_add_job_test_list(NAME <name> VARIANTS <variant...> <mpf_add_job_test args>)
#   The same job once per variant, a test list in the sense of MPICH's: each
#   variant is "label:tunable=value,tunable=value" and becomes the test
#   <name>.<label>, run with `--set tunable=value` for each pair; "label:"
#   runs with the defaults.
#
# mpf_test_environment()
#   Gives every test of the current directory MPF_TEST_ENVIRONMENT (below).
#   Directories that register tests through mpf_add_job_test get it at their
#   end without asking; others call it after their add_test calls.
include_guard(GLOBAL)

find_package(GTest CONFIG QUIET)
if(NOT GTest_FOUND)
  mpf_missing("GoogleTest" "libgtest-dev libgmock-dev")
endif()
include(GoogleTest)

# The harness and the schema checks run on Debian's python3 with
# python3-jsonschema; prefer the system interpreter over any other on PATH.
find_program(MPF_PYTHON NAMES python3 PATHS /usr/bin NO_DEFAULT_PATH)
if(NOT MPF_PYTHON)
  find_program(MPF_PYTHON NAMES python3)
endif()
if(NOT MPF_PYTHON)
  mpf_missing("python3 (test harness)" "python3")
endif()
execute_process(COMMAND "${MPF_PYTHON}" -c "import jsonschema"
                RESULT_VARIABLE _mpf_jsonschema OUTPUT_QUIET ERROR_QUIET)
if(NOT _mpf_jsonschema EQUAL 0)
  mpf_missing("the Python module jsonschema for ${MPF_PYTHON} (JSON schema checks)" "python3-jsonschema")
endif()

# The suite tests the toolkit's defaults, whatever this machine's tuning file
# says: once mpftune has written <prefix>/share/mpf/tuning.json (the default of
# the tuning_file tunable), every job would read it. So no test reads a tuning
# file unless it names one itself (MPF_TUNING_FILE in its ENVIRONMENT, or
# mpfrun --tuning). The scripts that build a job's environment afresh
# (tests/launcher/mpfrun_testing.py, tests/install/check_install.py) do the same.
set(MPF_TEST_ENVIRONMENT "MPF_TUNING_FILE=")

function(mpf_test_environment)
  get_property(tests DIRECTORY PROPERTY TESTS)
  foreach(test IN LISTS tests)
    get_test_property(${test} ENVIRONMENT environment)
    if(NOT environment MATCHES "(^|;)MPF_TUNING_FILE=")
      set_property(TEST ${test} APPEND PROPERTY ENVIRONMENT ${MPF_TEST_ENVIRONMENT})
    endif()
  endforeach()
endfunction()

# Schedules mpf_test_environment() once, at the end of the current directory,
# after every test of it exists.
function(_mpf_test_environment_at_end)
  get_property(scheduled DIRECTORY PROPERTY _MPF_TEST_ENVIRONMENT_SCHEDULED)
  if(NOT scheduled)
    set_property(DIRECTORY PROPERTY _MPF_TEST_ENVIRONMENT_SCHEDULED TRUE)
    cmake_language(DEFER CALL mpf_test_environment)
  endif()
endfunction()

set(MPF_RUN_JOB "${PROJECT_SOURCE_DIR}/tests/harness/run_job.py")
set(MPF_DEFAULT_JOB_TIMEOUT 60 CACHE STRING "Default timeout in seconds for a job started by a test")

function(mpf_add_unit_test)
  cmake_parse_arguments(PARSE_ARGV 0 T "" "NAME" "SOURCES;LIBS")
  add_executable(${T_NAME} ${T_SOURCES})
  target_link_libraries(${T_NAME} PRIVATE GTest::gtest GTest::gmock GTest::gtest_main ${T_LIBS})
  target_include_directories(${T_NAME} PRIVATE ${PROJECT_SOURCE_DIR}/tests/unit)
  # Discovered when CTest runs, so mpf_test_environment() does not see them.
  gtest_discover_tests(${T_NAME}
    TEST_PREFIX "${T_NAME}."
    PROPERTIES LABELS unit TIMEOUT 120 ENVIRONMENT "${MPF_TEST_ENVIRONMENT}"
    DISCOVERY_TIMEOUT 60)
endfunction()

set(_MPF_JOB_ONE NAME NP PROGRAM EXPECT_EXIT EXPECT_COUNTERS TIMEOUT)
set(_MPF_JOB_MULTI LABELS MPFRUN_ARGS ARGS EXPECT_OUTPUT REJECT_OUTPUT)

function(mpf_add_job_test)
  cmake_parse_arguments(PARSE_ARGV 0 T "" "${_MPF_JOB_ONE}" "${_MPF_JOB_MULTI}")
  if(T_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "mpf_add_job_test(${T_NAME}): unknown arguments ${T_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT T_NP)
    set(T_NP 1)
  endif()
  if(NOT DEFINED T_EXPECT_EXIT)
    set(T_EXPECT_EXIT 0)
  endif()
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT ${MPF_DEFAULT_JOB_TIMEOUT})
  endif()
  if(NOT T_LABELS)
    set(T_LABELS integration)
  endif()
  if(TARGET ${T_PROGRAM})
    set(program "$<TARGET_FILE:${T_PROGRAM}>")
  else()
    set(program "${T_PROGRAM}")
  endif()
  set(cmd "${MPF_PYTHON}" "${MPF_RUN_JOB}" --mpfrun "$<TARGET_FILE:mpfrun>"
          --np ${T_NP} --timeout ${T_TIMEOUT} --expect-exit ${T_EXPECT_EXIT})
  foreach(re IN LISTS T_EXPECT_OUTPUT)
    list(APPEND cmd --expect "${re}")
  endforeach()
  foreach(re IN LISTS T_REJECT_OUTPUT)
    list(APPEND cmd --reject "${re}")
  endforeach()
  foreach(opt IN LISTS T_MPFRUN_ARGS)
    list(APPEND cmd "--mpfrun-arg=${opt}")
  endforeach()
  if(T_EXPECT_COUNTERS)
    list(APPEND cmd --expect-counters "${T_EXPECT_COUNTERS}")
  endif()
  list(APPEND cmd -- "${program}" ${T_ARGS})
  add_test(NAME ${T_NAME} COMMAND ${cmd})
  # CTest's timeout sits above mpfrun's own, so mpfrun's diagnosis of a hung
  # job always reaches the log.
  math(EXPR ctest_timeout "${T_TIMEOUT} + 30")
  set_tests_properties(${T_NAME} PROPERTIES LABELS "${T_LABELS}" TIMEOUT ${ctest_timeout})
  _mpf_test_environment_at_end()
endfunction()

function(mpf_add_job_test_list)
  cmake_parse_arguments(PARSE_ARGV 0 T "" "${_MPF_JOB_ONE}" "VARIANTS;${_MPF_JOB_MULTI}")
  if(NOT T_VARIANTS)
    message(FATAL_ERROR "mpf_add_job_test_list(${T_NAME}): no VARIANTS given")
  endif()
  # Pass the job's own arguments through unchanged.
  set(job_args)
  foreach(key NP PROGRAM EXPECT_EXIT EXPECT_COUNTERS TIMEOUT)
    if(DEFINED T_${key})
      list(APPEND job_args ${key} "${T_${key}}")
    endif()
  endforeach()
  foreach(key LABELS ARGS EXPECT_OUTPUT REJECT_OUTPUT)
    if(T_${key})
      list(APPEND job_args ${key} ${T_${key}})
    endif()
  endforeach()
  foreach(variant IN LISTS T_VARIANTS)
    if(NOT variant MATCHES "^([A-Za-z0-9_-]+):(.*)$")
      message(FATAL_ERROR "mpf_add_job_test_list(${T_NAME}): variant '${variant}' is not label:tunable=value[,tunable=value]")
    endif()
    set(label "${CMAKE_MATCH_1}")
    string(REPLACE "," ";" settings "${CMAKE_MATCH_2}")
    set(sets ${T_MPFRUN_ARGS})
    foreach(setting IN LISTS settings)
      list(APPEND sets "--set=${setting}")
    endforeach()
    mpf_add_job_test(NAME ${T_NAME}.${label} MPFRUN_ARGS ${sets} ${job_args})
  endforeach()
endfunction()
