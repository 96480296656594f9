BYJ0άδϊAΠ›BsnEB‹λ$BCϋSBΠ/B²rB©ζyB›¥6ACFωΐk
V@©Ζ?