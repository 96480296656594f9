BY_scaleJ¬
<