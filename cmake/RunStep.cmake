# make step-N: run a step's default sweep with verification, write its CSV and draw it
# against the previous step's CSV and the measured peak when those exist.
# Called as: cmake -DEXE= -DSLUG= -DRESULTS= -DPREV_CSV= -DPYTHON= -DPLOT= -P RunStep.cmake
file(MAKE_DIRECTORY "${RESULTS}")
set(csv "${RESULTS}/step${SLUG}.csv")
execute_process(COMMAND "${EXE}" --csv "${csv}" RESULT_VARIABLE rc)
if(rc EQUAL 77)
  message(STATUS "step${SLUG}: not supported on this CPU (exit 77); nothing to plot")
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
if(PREV_CSV AND EXISTS "${PREV_CSV}")
  list(PREPEND inputs "${PREV_CSV}")
endif()
set(peak_args "")
if(EXISTS "${RESULTS}/peak.csv")
  set(peak_args --peak "${RESULTS}/peak.csv")
endif()
execute_process(COMMAND "${PYTHON}" "${PLOT}" ${inputs} ${peak_args}
                        -o "${RESULTS}/step${SLUG}.png"
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "plotting failed (exit ${rc})")
endif()
message(STATUS "wrote ${csv} and ${RESULTS}/step${SLUG}.png")
