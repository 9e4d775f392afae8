# sibyl kmodel: the training suite, datasets, regressions against
# scikit-learn.
foreach(t suite dataset evaluate predict fit refuse)
  sibyl_script_test(kmodel_${t} ${CMAKE_CURRENT_SOURCE_DIR}/kmodel/${t}.sh)
endforeach()
