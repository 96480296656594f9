BbiasJ°'
B Ну┴