# The diagnoser's unit tests: node pressure parsing against the /proc
# fixtures, every rule at its thresholds, and the report renderings.
add_executable(diagnoser_unit_tests
  ${CMAKE_CURRENT_LIST_DIR}/pressure_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/diagnoser_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/report_test.cpp
)
target_compile_definitions(diagnoser_unit_tests PRIVATE
  PLEGSCOPE_FIXTURES_DIR="${PROJECT_SOURCE_DIR}/tests/fixtures")
target_link_libraries(diagnoser_unit_tests PRIVATE plegscope_agent GTest::gtest_main)
gtest_discover_tests(diagnoser_unit_tests PROPERTIES LABELS unit TIMEOUT 60)
