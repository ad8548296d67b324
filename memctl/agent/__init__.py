"""memctl.agent"""
