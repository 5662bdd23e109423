import RFB
