# Warnings and sanitizer builds, applied to every target of the project.
#
#   -DMPF_SANITIZE=address   AddressSanitizer + UndefinedBehaviorSanitizer
#   -DMPF_SANITIZE=thread    ThreadSanitizer
set(MPF_SANITIZE "" CACHE STRING "Sanitizer build: empty, 'address' (ASan+UBSan) or 'thread' (TSan)")
set_property(CACHE MPF_SANITIZE PROPERTY STRINGS "" address thread)
option(MPF_WERROR "Treat warnings as errors" OFF)

add_compile_options(-Wall -Wextra)
# Calls inside a shared library go straight to the callee instead of through
# the PLT: nobody interposes the toolkit's internal functions.
add_compile_options(-fno-semantic-interposition)
# Small fixed-size clears and copies (a fresh request is `= {}` of 100-150
# bytes) inline as vector stores instead of `rep stos`/`rep movs`, whose
# start-up cost on these x86 VMs was a tenth of the time of a small message
# (perf annotate of tune/kernels/msgrate.c); larger ones call libc.
include(CheckCXXCompilerFlag)
set(_mpf_string_strategy vector_loop:512:noalign,libcall:-1:noalign)
check_cxx_compiler_flag("-mmemset-strategy=${_mpf_string_strategy}" MPF_HAS_STRING_STRATEGY)
if(MPF_HAS_STRING_STRATEGY)
  add_compile_options(-mmemset-strategy=${_mpf_string_strategy} -mmemcpy-strategy=${_mpf_string_strategy})
endif()
# GCC 12 reports -Wrestrict on ordinary std::string concatenation inlined at
# -O2 (GCC bug 105329, fixed in GCC 13): a false positive in libstdc++, not in
# our code, so it is switched off for that compiler only.
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
  add_compile_options($<$<COMPILE_LANGUAGE:CXX>:-Wno-restrict>)
endif()
if(MPF_WERROR)
  add_compile_options(-Werror)
endif()

if(MPF_SANITIZE STREQUAL "address")
  set(_mpf_san -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer)
elseif(MPF_SANITIZE STREQUAL "thread")
  set(_mpf_san -fsanitize=thread -fno-omit-frame-pointer)
elseif(NOT MPF_SANITIZE STREQUAL "")
  message(FATAL_ERROR "MPF_SANITIZE='${MPF_SANITIZE}' is not a sanitizer build; use 'address' or 'thread'")
endif()
if(_mpf_san)
  add_compile_options(${_mpf_san})
  add_link_options(${_mpf_san})
endif()
