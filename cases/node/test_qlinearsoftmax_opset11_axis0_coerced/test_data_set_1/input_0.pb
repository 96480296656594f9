BXJ
¸õÌMWmµ Q2ÇQj#«ãJI|=c-Ý