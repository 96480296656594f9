BYJ0ц`ЩDА
е'bcдУh
EAiNц╢ХgC=<╝цcьBе▓B┴·аL┘ат┐оA