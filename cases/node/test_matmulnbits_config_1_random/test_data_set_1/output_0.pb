
BYJ$‚C=’DxC–=ÆhCß<^DGC¿= Å[C%=æD‹C¡=£Ä