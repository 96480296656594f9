Btarget_typeJδ-"@νcg
ςΘ ν3άρ΄^¤