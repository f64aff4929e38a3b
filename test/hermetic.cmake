# Included by ctest before any test runs (TEST_INCLUDE_FILES, CMakeLists.txt):
# the suite runs on the library's built-in model figures, whatever machine
# profile this user has calibrated ($XDG_CACHE_HOME/lincoll/profile).  Tests
# of the profile set LINCOLL_PROFILE, or unset it, in their own children.
set(ENV{LINCOLL_PROFILE} none)
