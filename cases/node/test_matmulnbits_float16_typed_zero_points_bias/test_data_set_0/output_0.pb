
BYJP¹L‡Í^EVLL@Ë·J