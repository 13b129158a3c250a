# make step-N: run a step's default sweep with verification, write its CSV and draw it
# against the previous step's CSV and the measured peak when those exist. With BOTH=1 (the
# tuned step, parallel, 10 and up) twice: --threads 1 into stepNN_slug.csv, drawn beside
# SERIAL_PREV_CSV (the last one-thread step), and all threads into stepNN_slug_mt.csv,
# drawn beside PREV_CSV.
# Called as: cmake -DEXE= -DSLUG= -DRESULTS= -DPREV_CSV= -DPYTHON= -DPLOT= [-DBOTH=1
#            -DSERIAL_PREV_CSV=] -P RunStep.cmake
file(MAKE_DIRECTORY "${RESULTS}")

# sweep(CSV PREV OUT_PNG ARGS...): one sweep of EXE with ARGS into CSV, drawn as OUT_PNG.
function(sweep csv prev png)
  execute_process(COMMAND "${EXE}" ${ARGN} --csv "${csv}" RESULT_VARIABLE rc)
  if(rc EQUAL 77)
    message(STATUS "step${SLUG}: not supported on this CPU (exit 77); nothing to plot")
    set(unsupported 1 PARENT_SCOPE)
    return()
  elseif(NOT rc EQUAL 0)
    message(FATAL_ERROR "step${SLUG} exited with ${rc} (1: a result failed verification)")
  endif()
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

if(BOTH)
  sweep("${RESULTS}/step${SLUG}.csv" "${SERIAL_PREV_CSV}" "${RESULTS}/step${SLUG}.png" --threads 1)
  if(NOT unsupported)
    sweep("${RESULTS}/step${SLUG}_mt.csv" "${PREV_CSV}" "${RESULTS}/step${SLUG}_mt.png")
  endif()
else()
  sweep("${RESULTS}/step${SLUG}.csv" "${PREV_CSV}" "${RESULTS}/step${SLUG}.png")
endif()
