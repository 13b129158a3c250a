# A Python interpreter that can import matplotlib: the python3 first on PATH may be another
# installation without it, while Debian's /usr/bin/python3 has it with python3-matplotlib.
# Set GEMM_PYTHON to choose.
if(NOT GEMM_PYTHON)
  find_program(_gemm_path_python NAMES python3 python NO_CACHE)
  foreach(candidate /usr/bin/python3 /usr/local/bin/python3 ${_gemm_path_python})
    if(EXISTS "${candidate}")
      execute_process(COMMAND "${candidate}" -c "import matplotlib" RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET)
      if(rc EQUAL 0)
        set(GEMM_PYTHON "${candidate}" CACHE FILEPATH "Python interpreter with matplotlib")
        break()
      endif()
    endif()
  endforeach()
endif()

# The sampler (tools/interleave.py, `make step-N`) needs only the standard library: the
# plotting interpreter when there is one, else any python3 (without one, step-N sweeps alone).
if(GEMM_PYTHON)
  message(STATUS "gemm-steps: plotting with ${GEMM_PYTHON}")
  set(GEMM_SAMPLER_PYTHON "${GEMM_PYTHON}")
else()
  message(WARNING "gemm-steps: no Python interpreter here can import matplotlib, so no "
          "figures will be drawn and the plot tests are not registered. On Debian or Ubuntu: "
          "apt-get install python3-matplotlib (then re-run cmake), or pass "
          "-DGEMM_PYTHON=/path/to/python3 for an interpreter that has it.")
  find_program(GEMM_SAMPLER_PYTHON NAMES python3 NO_CACHE)   # NOTFOUND is false to RunStep's if()
endif()
