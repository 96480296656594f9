
Btarget_typeJa©.zìïºŸT