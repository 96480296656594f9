Bb_scaleJ¾
=