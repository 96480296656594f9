Bb_scaleJ•x	<§F¡;!
“;