# make step-N: sample a step side by side with the step before it (tools/interleave.py),
# verify every result, write their CSVs and draw the step against the step before and the
# measured peak. With BOTH=1 (a parallel step from 10 on) the step is sampled on one thread
# (stepNN_slug.csv, drawn beside SERIAL_PREV_CSV) and on all threads (stepNN_slug_mt.csv,
# beside PREV_CSV). Without a python3, the step is swept alone, once.
# Called as: cmake -DEXE= -DSLUG= -DRESULTS= -DPREV_CSV= -DPREV_EXE= -DPYTHON= -DPLOT=
#            -DSAMPLER_PYTHON= -DINTERLEAVE= [-DBOTH=1 -DSERIAL_PREV_CSV= -DSERIAL_PREV_EXE=]
#            -P RunStep.cmake
file(MAKE_DIRECTORY "${RESULTS}")

# draw(CSV PREV OUT_PNG): CSV beside PREV (when it exists) and the peak.
function(draw csv prev png)
  if(NOT PYTHON)
    message(WARNING "No Python with matplotlib was found at configure time: ${csv} written, "
                    "no figure drawn (apt-get install python3-matplotlib, then re-run cmake)")
    return()
  endif()
  set(inputs "${csv}")
  if(prev AND EXISTS "${prev}")
    list(PREPEND inputs "${prev}")
  endif()
  set(peak_args "")
  if(EXISTS "${RESULTS}/peak.csv")
    set(peak_args --peak "${RESULTS}/peak.csv")
  endif()
  execute_process(COMMAND "${PYTHON}" "${PLOT}" ${inputs} ${peak_args} -o "${png}" RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "plotting failed (exit ${rc})")
  endif()
  message(STATUS "wrote ${csv} and ${png}")
endfunction()

set(jobs --job "step${SLUG}='${EXE}'")
if(BOTH)
  set(jobs --job "step${SLUG}='${EXE}' --threads 1" --job "step${SLUG}_mt='${EXE}'")
endif()
foreach(kind PREV SERIAL_PREV)   # SERIAL_PREV_EXE is given only with BOTH
  if(${kind}_EXE)
    get_filename_component(label "${${kind}_CSV}" NAME_WE)   # step08_avx512_14x32
    list(APPEND jobs --job "${label}='${${kind}_EXE}'")
  endif()
endforeach()

# GEMM_SAMPLER_ARGS: more options for the sampler ("--sizes 64,96 --rounds 1": tests/test_pages.py).
separate_arguments(sampler_args UNIX_COMMAND "$ENV{GEMM_SAMPLER_ARGS}")
if(SAMPLER_PYTHON)
  execute_process(COMMAND "${SAMPLER_PYTHON}" "${INTERLEAVE}" --out "${RESULTS}" ${jobs} ${sampler_args}
                  RESULT_VARIABLE rc)
else()
  message(STATUS "step${SLUG}: no python3 here: one sweep of the step alone, not sampled beside the step before it")
  execute_process(COMMAND "${EXE}" --csv "${RESULTS}/step${SLUG}.csv" RESULT_VARIABLE rc)
endif()
if(NOT EXISTS "${RESULTS}/step${SLUG}.csv" AND (rc EQUAL 0 OR rc EQUAL 77))
  message(STATUS "step${SLUG}: not supported on this CPU (exit 77); nothing to plot")
  return()
elseif(rc EQUAL 2)   # short: the sampler's own line above says what
  message(FATAL_ERROR "step${SLUG}: the sampler refused its command line (above)")
elseif(rc EQUAL 130)
  message(FATAL_ERROR "step${SLUG}: interrupted")
elseif(NOT rc EQUAL 0)
  message(FATAL_ERROR "step${SLUG}: sampling exited with ${rc} (a result failed verification or a run "
                      "failed, named above)")
endif()
if(BOTH)
  draw("${RESULTS}/step${SLUG}.csv" "${SERIAL_PREV_CSV}" "${RESULTS}/step${SLUG}.png")
  if(EXISTS "${RESULTS}/step${SLUG}_mt.csv")
    draw("${RESULTS}/step${SLUG}_mt.csv" "${PREV_CSV}" "${RESULTS}/step${SLUG}_mt.png")
  endif()
else()
  draw("${RESULTS}/step${SLUG}.csv" "${PREV_CSV}" "${RESULTS}/step${SLUG}.png")
endif()
