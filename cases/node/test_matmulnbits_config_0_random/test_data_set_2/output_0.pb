
BYJD:ŠBD:ŠBD:ŠB