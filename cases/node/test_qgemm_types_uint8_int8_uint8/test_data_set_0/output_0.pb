BYJb/XaN9Td
&*